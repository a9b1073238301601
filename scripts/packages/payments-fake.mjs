import { createServer } from 'node:http';

/**
 * The flaky payment API the example handler calls: `order-2` answers 503 once, a negative
 * amount 422, `order-slow` takes 1.5 s (to be in flight at SIGTERM), the rest 201.
 */
export async function startPaymentsFake() {
  const calls = [];
  const received = new Set();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const charge = JSON.parse(body);
      received.add(charge.orderId);
      const status = charge.amountCents < 0 ? 422 : charge.orderId === 'order-2' && !calls.some((c) => c.orderId === 'order-2') ? 503 : 201;
      const answer = () => {
        calls.push({ orderId: charge.orderId, status, idempotencyKey: request.headers['idempotency-key'] });
        response.writeHead(status).end();
      };
      if (charge.orderId === 'order-slow') setTimeout(answer, 1500);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    calls,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
