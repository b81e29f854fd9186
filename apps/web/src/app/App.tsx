/**
 * The console: providers around the guarded routes.
 */
import { Providers } from './providers';
import { AppRoutes } from './router';

export function App() {
  return (
    <Providers>
      <AppRoutes />
    </Providers>
  );
}
