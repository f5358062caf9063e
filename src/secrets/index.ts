/**
 * The one secret policy: what is masked (secret-policy.ts), applied to stored JSON bytes
 * (masked-json.ts) and, as they are read in pieces, to those of an event too large to read
 * whole (masked-json-stream.ts), to text that is not parsed and to text shaped like a credential
 * (credential-text.ts), and the known secrets of a conversation as the server looks them up
 * per request (recent-known-secrets.ts).
 */
export { maskedJson, maskedJsonItems } from './masked-json';
export { JsonMaskingStream, type LateCredentials, type MaskingPlan, maskedJsonPieces, maskingPlan, slices } from './masked-json-stream';
export {
  CREDENTIAL_MARK,
  KnownBytesMasking,
  KnownSecrets,
  MASKED_SECRET,
  PieceScan,
  TextMasking,
  knownSecretsOf,
  mayHoldSecrets,
  maskSecrets,
  maskedCopy,
} from './secret-policy';
export { looksSecret, maskCredentialText, maskSecretText } from './credential-text';
export type { CopyOptions } from './secret-policy';
export { RECENT_KNOWN_SECRETS, type RecentKnownSecretsOptions, recentKnownSecrets } from './recent-known-secrets';
export { isCredentialHeader, isCredentialQueryParameter } from './request-credentials';
