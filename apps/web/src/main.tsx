/**
 * Entry: initialise i18n (language from local storage, Chinese by default), load that language's
 * texts, then mount the app.
 */
import { i18nReady } from '@/shared/i18n';
import './app/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';

const root = document.getElementById('root');
if (!root) throw new Error('#root missing from index.html');

void i18nReady.then(() =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
