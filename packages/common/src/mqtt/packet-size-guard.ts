/** Where the reader stands in the byte stream: a fixed header's first byte, its remaining length, or the packet's body. */
type Position = { kind: 'header' } | { kind: 'length'; value: number; bytes: number } | { kind: 'body'; left: number };

/**
 * Follows the MQTT packets in the bytes a broker sends and tells the size of the first one over `maxPacketBytes` from
 * its fixed header, before its body arrived: mqtt.js buffers a whole packet before it looks at its size, so a broker
 * that ignores MQTT 5's Maximum Packet Size (or speaks 3.1.1) could make it hold hundreds of megabytes.
 */
export class PacketSizeGuard {
  private at: Position = { kind: 'header' };

  constructor(private readonly maxPacketBytes: number) {}

  /** Reads one chunk; the size of a packet over the limit, or undefined while every packet fits. */
  check(chunk: Buffer): number | undefined {
    let i = 0;
    while (i < chunk.length) {
      const at = this.at;
      if (at.kind === 'header') {
        this.at = { kind: 'length', value: 0, bytes: 0 };
        i++;
      } else if (at.kind === 'length') {
        const byte = chunk[i++]!;
        at.value += (byte & 0x7f) * 128 ** at.bytes;
        at.bytes++;
        if (byte & 0x80 && at.bytes < 4) continue;
        const size = 1 + at.bytes + at.value;
        if (size > this.maxPacketBytes) return size;
        this.at = at.value === 0 ? { kind: 'header' } : { kind: 'body', left: at.value };
      } else {
        const taken = Math.min(at.left, chunk.length - i);
        i += taken;
        at.left -= taken;
        if (at.left === 0) this.at = { kind: 'header' };
      }
    }
    return undefined;
  }
}

/** The error a stream ends with when the broker announces a packet over the limit; `code` makes mqtt.js emit it. */
export class PacketTooLargeError extends Error {
  readonly code = 'ERR_MQTT_PACKET_TOO_LARGE';
  constructor(size: number, max: number) {
    super(`the broker sent a packet of ${size} bytes; the limit is ${max}: disconnected`);
  }
}

/** What the guard needs of a connection's stream (a socket, a TLS socket or mqtt.js's WebSocket duplex). */
export interface GuardedStream {
  readonly destroyed: boolean;
  prependListener(event: 'data', listener: (chunk: Buffer) => void): unknown;
  destroy(error?: Error): unknown;
}

/**
 * Ends `stream` when the broker announces a packet over `maxPacketBytes`. Runs before mqtt.js's parser sees the chunk,
 * which then holds at most that one chunk of the packet.
 */
export function guardPacketSize<S extends GuardedStream>(stream: S, maxPacketBytes: number): S {
  const guard = new PacketSizeGuard(maxPacketBytes);
  stream.prependListener('data', (chunk: Buffer) => {
    if (stream.destroyed) return;
    const size = guard.check(chunk);
    if (size !== undefined) stream.destroy(new PacketTooLargeError(size, maxPacketBytes));
  });
  return stream;
}
