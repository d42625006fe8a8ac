/*
 * Bytes on a TCP socket, for the answers no HTTP client would provoke: requests without Host, CONNECT,
 * broken request lines, unmet expectations, pipelined requests.
 */
import { connect, type Socket } from 'node:net';

/** One HTTP response as read off the socket. */
export interface RawResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
}

/** Opens a socket to `port` on 127.0.0.1 and resolves once it is connected. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server writes on `socket` until it closes the connection. */
export function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

/** Writes `text` on a new connection and reads until the server closes it. */
export async function rawExchange(port: number, text: string): Promise<string> {
  const socket = await openSocket(port);
  const read = readUntilClosed(socket);
  socket.write(text);
  return read;
}

/** The responses in `raw`, in order (bodies by Content-Length; 1xx responses have none). */
export function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response: ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}
