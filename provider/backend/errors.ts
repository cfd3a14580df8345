/**
 * The one error the state-backend reader throws, and the masking that keeps a backend URL's
 * password out of it (and out of `StateBackend.url`): a password is never printed.
 */

/** A backend that cannot be reached or read: one line naming the backend (its URL, password masked) and the problem. */
export class StateBackendError extends Error {
  override name = "StateBackendError";

  constructor(
    /** The backend's URL, password masked. */
    readonly url: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`the state backend ${url} cannot be read: ${problem}`, options);
  }
}

/** `scheme://user:password@…` → `scheme://user:****@…`; anything else as it is. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#@]*@/i, "$1****@");
}

/**
 * `text` (a CLI's error line, a driver's message) with every URL's password masked, and each of
 * `secrets` (the URL's password as written and decoded, PGPASSWORD) replaced wherever it appears.
 */
export function maskText(text: string, secrets: readonly string[]): string {
  let masked = text.replace(/([a-z][a-z0-9+.-]*:\/\/[^/?#@:\s]*:)[^/?#@\s]*@/gi, "$1****@");
  for (const secret of secrets) if (secret.length > 0) masked = masked.split(secret).join("****");
  return masked;
}

/** The password of `url` as written and as decoded ([] when it has none): what maskText must hide. */
export function passwordsOf(url: string): string[] {
  const written = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:([^/?#@]*)@/i.exec(url)?.[1];
  if (written === undefined || written === "") return [];
  let decoded = written;
  try {
    decoded = decodeURIComponent(written);
  } catch {
    // not percent-encoded text: the written form is the password
  }
  return [...new Set([written, decoded])];
}
