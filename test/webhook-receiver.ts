import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A real HTTP endpoint on loopback that records what it receives and answers as told. */
export class WebhookReceiver {
  readonly received: Delivery[] = [];
  /** Statuses to answer, in order; after them, `status`. */
  script: number[] = [];
  status = 200;
  delayMs = 0;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const status = this.script.shift() ?? this.status;
        const answer = () => {
          res.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : { 'content-type': 'text/plain' });
          res.end(status >= 200 && status < 300 ? 'ok' : `failure ${status}`);
        };
        if (this.delayMs) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
    return this;
  }

  events(type?: string): { id: string; type: string; data: any; account_id: string; created_at: string }[] {
    return this.received.map((d) => JSON.parse(d.body)).filter((e) => !type || e.type === type);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Standard Webhooks verification written from the specification with WebCrypto, independent
 * of the server's signing code: true when one of the `v1,` signatures matches the secret.
 */
export async function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string): Promise<boolean> {
  const id = headers['webhook-id'] as string;
  const timestamp = headers['webhook-timestamp'] as string;
  const signatures = String(headers['webhook-signature'] ?? '').split(' ');
  if (!id || !timestamp || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const keyBytes = Uint8Array.from(atob(secret.slice('whsec_'.length)), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const expected = btoa(String.fromCharCode(...mac));
  return signatures.some((s) => s === `v1,${expected}`);
}
