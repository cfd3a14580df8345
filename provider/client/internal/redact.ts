/** The token in every form a server could echo it back in. Tokens are ≥ 8 visible ASCII characters. */
export class Redactor {
  readonly #forms: string[];

  constructor(token: string) {
    const json = JSON.stringify(token).slice(1, -1);
    const forms = new Set([
      token,
      json,
      json.replaceAll("/", "\\/"),
      encodeURIComponent(token),
      new URLSearchParams({ t: token }).toString().slice(2),
    ]);
    // Longest first, so a form containing another is replaced whole.
    this.#forms = [...forms].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const form of this.#forms) out = out.split(form).join("[REDACTED]");
    return out;
  }
}
