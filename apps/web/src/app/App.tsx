/**
 * The console: providers around the guarded routes.
 */
import { Providers } from './providers';
import { AppRoutes } from './router';

/** Root component mounted by main.tsx. */
export function App() {
  return (
    <Providers>
      <AppRoutes />
    </Providers>
  );
}
