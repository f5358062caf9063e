/** The one secret policy (secret-policy.ts) and its application to stored JSON bytes (masked-json.ts). */
export { maskedJson, maskedJsonItems } from './masked-json';
export { KnownSecrets, MASKED_SECRET, knownSecretsOf, mayHoldSecrets, maskSecrets, maskedCopy } from './secret-policy';
export { maskCredentialText, maskSecretText } from './credential-text';
export type { CopyOptions } from './secret-policy';
export { RECENT_KNOWN_SECRETS, type RecentKnownSecretsOptions, recentKnownSecrets } from './recent-known-secrets';
export { isCredentialHeader, isCredentialQueryParameter } from './request-credentials';
