/**
 * Why the ingester's last look at a conversation's directory could not read it (an `events`
 * that is not a directory, one it may not list): the server answers that conversation's
 * requests with the error rather than with what the database held of it before.
 */
export const UNREADABLE_CONVERSATIONS_SCHEMA = `
ALTER TABLE conversations ADD COLUMN unreadable text;
`;
