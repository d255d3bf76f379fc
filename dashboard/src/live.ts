/**
 * The account's events over the WebSocket (`/api/ws?token=`): one socket per tab, every event,
 * handed to the pages that listen. After a drop it reconnects with the current token and asks
 * the server to replay what it missed (`resume`).
 */
import type { components } from '@sendline/sdk';
import { useEffect, useSyncExternalStore } from 'react';
import { session } from './session.ts';

export type LiveEvent = components['schemas']['Event'];
type Listener = (event: LiveEvent) => void;

const listeners = new Set<Listener>();
const stateListeners = new Set<() => void>();
let socket: WebSocket | null = null;
let lastId: string | null = null;
let connected = false;
let retryMs = 1_000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

function setConnected(value: boolean) {
  connected = value;
  stateListeners.forEach((listener) => listener());
}

function connect() {
  const token = session.get()?.token;
  if (!token || socket) return;
  const url = new URL('/api/ws', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  const ws = new WebSocket(url);
  socket = ws;
  ws.onopen = () => {
    retryMs = 1_000;
    ws.send(JSON.stringify({ type: 'subscribe', events: ['*'] }));
    if (lastId) ws.send(JSON.stringify({ type: 'resume', after: lastId }));
  };
  ws.onmessage = (message) => {
    const data = JSON.parse(String(message.data)) as { type: string; id?: string };
    if (data.type === 'subscribed') setConnected(true);
    if (!data.id) return;
    lastId = data.id;
    for (const listener of listeners) listener(data as LiveEvent);
  };
  ws.onclose = () => {
    socket = null;
    setConnected(false);
    if (!session.get()) return;
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 30_000);
  };
}

function disconnect() {
  clearTimeout(retryTimer);
  socket?.close();
  socket = null;
  lastId = null;
}

session.subscribe(() => {
  if (session.get()) connect();
  else disconnect();
});

export function startLive(): void {
  connect();
}

/** Calls `listener` for each event while the component is mounted. */
export function useLiveEvents(listener: Listener): void {
  useEffect(() => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, [listener]);
}

export function useLiveConnected(): boolean {
  return useSyncExternalStore(
    (listener) => {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    () => connected,
  );
}
