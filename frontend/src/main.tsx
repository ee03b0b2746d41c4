import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The theme and what every view uses, before any component's own styles.
import './styles/theme.css';
import './styles/base.css';
import './styles/controls.css';
import './styles/overlays.css';
import { App } from './App';
import { followScheme } from './hooks/useColorScheme';

followScheme();

const root = document.getElementById('root');
if (root === null) {
  throw new Error('index.html has no #root element');
}
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
