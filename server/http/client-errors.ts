import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Problem } from '../contract/problem.ts';
import { SECURITY_HEADER_LINES } from './security-headers.ts';

/** Node's own limit on a request's line and headers (`--max-http-header-size`). */
const HEADER_LIMIT_KB = 16;

function answer(socket: Duplex, status: string, problem: Problem): void {
  const body = JSON.stringify(problem.toJSON());
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${SECURITY_HEADER_LINES}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * Requests Node's parser refuses never reach Express, and Node answers them with an empty body;
 * the contract promises a problem document, so these get one (then the connection closes).
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      return answer(
        socket,
        '431 Request Header Fields Too Large',
        new Problem(431, 'headers_too_large', `The request line and headers are larger than ${HEADER_LIMIT_KB} KB.`),
      );
    }
    // Node's own answer to a client too slow to send its request, which this listener replaces.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      return answer(socket, '408 Request Timeout', new Problem(408, 'request_timeout', 'The request was not received in time.'));
    }
    answer(socket, '400 Bad Request', new Problem(400, 'malformed_request', 'The request is not valid HTTP.'));
  });
}
