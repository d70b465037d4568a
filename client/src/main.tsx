import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from '@tanstack/react-router';
import { router } from './router';
import { useAuth } from './stores/auth';
import { Toasts } from './components/Toasts';
import './styles.css';

// The auth check starts at once, in parallel with the first screen's chunk.
void useAuth.getState().init();

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <RouterProvider router={router} />
      <Toasts />
    </StrictMode>,
  );
}
