/**
 * A conversation's known secrets as the server looks them up per request: reading the saved
 * state on every page would cost file-system calls (or a query) beside each search, so a
 * lookup is reused for a short while. A secret the agent server adds to the registry is
 * masked from then on, once the reused lookup has expired.
 */
import type { KnownSecrets } from './secret-policy';

export interface RecentKnownSecretsOptions {
  /** How long one lookup is reused. */
  freshMs: number;
  /** Conversations remembered at most; the oldest lookup is forgotten first. */
  maxConversations: number;
}

export const RECENT_KNOWN_SECRETS: RecentKnownSecretsOptions = { freshMs: 1000, maxConversations: 1024 };

export function recentKnownSecrets(
  lookup: (hex: string) => Promise<KnownSecrets>,
  options: RecentKnownSecretsOptions = RECENT_KNOWN_SECRETS,
): (hex: string) => Promise<KnownSecrets> {
  const recent = new Map<string, { known: Promise<KnownSecrets>; at: number }>();
  return (hex) => {
    const now = performance.now();
    const held = recent.get(hex);
    if (held && now - held.at < options.freshMs) return held.known;
    const known = lookup(hex);
    recent.delete(hex);
    recent.set(hex, { known, at: now });
    // A failed lookup is not reused: the next request asks again.
    known.catch(() => recent.get(hex)?.known === known && recent.delete(hex));
    if (recent.size > options.maxConversations) recent.delete(recent.keys().next().value!);
    return known;
  };
}
