// The version handshake of docs/protocol.md: `capabilities.experimental.fixloop.protocol == 1`.

export const PROTOCOL_VERSION = 1;

export type Handshake = { ok: true } | { ok: false; found: string };

export function checkHandshake(result: { capabilities?: { experimental?: unknown } } | undefined): Handshake {
  const experimental = result?.capabilities?.experimental as { fixloop?: { protocol?: unknown } } | undefined;
  const protocol = experimental?.fixloop?.protocol;
  if (protocol === PROTOCOL_VERSION) {
    return { ok: true };
  }
  return { ok: false, found: protocol === undefined ? "no fixloop protocol" : `protocol ${JSON.stringify(protocol)}` };
}
