import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ErrorBoundary } from './components/ErrorBoundary';
import './styles.css';
import './sw-register'; // offline use once loaded (production builds only)

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {/* Last resort: the page is never blank, even if the shell itself throws. */}
    <ErrorBoundary what="page">
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
