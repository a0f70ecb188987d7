// Keeps secrets out of everything the extension logs (the LSP trace includes initializationOptions).

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 8) {
      out = out.split(secret).join("<redacted>");
    }
  }
  return out;
}
