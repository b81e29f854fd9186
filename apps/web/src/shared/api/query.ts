/**
 * The TanStack Query client for server state. Failures are already shown by the request client
 * (spec §8), so queries neither retry nor refetch on focus.
 */
import { QueryClient } from '@tanstack/react-query';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});
