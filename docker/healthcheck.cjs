// Docker's HEALTHCHECK: healthy while the service answers /health with 2xx (ok or degraded). It sends no key: where
// one is required /health still answers (status, service and version only), so only the HTTP status is read.
// The port follows the service's own precedence: its own variable, then PORT, then its default.
const env = process.env;
const port = env[env.HOMEOPS_PORT_VARIABLE] || env.PORT || env.HOMEOPS_DEFAULT_PORT;
fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
