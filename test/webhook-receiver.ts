import { Webhook } from 'standardwebhooks';
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

/** Checks a delivery as receivers do, with the Standard Webhooks reference library (timestamp tolerance included). */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
