/** Monthly bills (issue 17 item 5): what the app needs of the feature (the print page's path). */
export { BILL_PRINT_PATH } from './model';
