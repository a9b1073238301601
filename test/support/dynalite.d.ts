/** dynalite ships no types: the one call the tests make. */
declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: { createTableMs?: number; path?: string }): Server;
}
