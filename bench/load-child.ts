/**
 * Child process of the HTTP benchmarks: runs autocannon with the options it is sent and answers
 * the figures, so that the load generator never shares the server's event loop.
 */
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerS: number;
  total: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  non2xx: number;
  seconds: number;
}

process.on('message', (m: { type: string; options?: autocannon.Options }) => {
  if (m.type === 'exit') process.exit(0);
  if (m.type !== 'run') return;
  autocannon(m.options!).then(
    (r) =>
      process.send?.({
        type: 'done',
        result: {
          requestsPerS: Math.round(r.requests.total / r.duration),
          total: r.requests.total,
          p50Ms: r.latency.p50,
          p90Ms: r.latency.p90,
          p99Ms: r.latency.p99,
          maxMs: r.latency.max,
          errors: r.errors + r.timeouts,
          non2xx: r.non2xx,
          seconds: r.duration,
        } satisfies LoadResult,
      }),
    (err: Error) => process.send?.({ type: 'error', error: err.message }),
  );
});
