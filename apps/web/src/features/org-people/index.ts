/**
 * Org-people feature (departments and employees): what other features use — the company
 * picker of the organisation screens and the page's company choice.
 */

export { CompanyPicker, useCompanyChoice, useCompanyOptions } from './CompanyPicker';
