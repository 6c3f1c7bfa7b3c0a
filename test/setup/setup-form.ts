export interface SetupForm {
  action: URL;
  method: string;
  manifest: Record<string, unknown> & {
    hook_attributes: { url: string };
    redirect_url: string;
  };
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match?.[1] === undefined ? undefined : decodeEntities(match[1]);
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body.startsWith('#x') || body.startsWith('#X'))
      return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(Number(body.slice(1)));
    return named[body] ?? entity;
  });
}

/** What a browser submits from the setup page: the one form and its `manifest` field. */
export function readSetupForm(html: string): SetupForm {
  const forms = html.match(/<form\b[^>]*>/g) ?? [];
  if (forms.length !== 1) throw new Error(`expected one form, found ${forms.length}`);
  const form = forms[0]!;
  const fields = (html.match(/<(input|button)\b[^>]*>/g) ?? []).filter(
    (tag) => attribute(tag, 'name') === 'manifest',
  );
  if (fields.length !== 1) throw new Error(`expected one manifest field, found ${fields.length}`);
  const value = attribute(fields[0]!, 'value');
  if (value === undefined) throw new Error('the manifest field has no value');
  return {
    action: new URL(attribute(form, 'action') ?? ''),
    method: (attribute(form, 'method') ?? 'get').toLowerCase(),
    manifest: JSON.parse(value) as SetupForm['manifest'],
  };
}
