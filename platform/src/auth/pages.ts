/**
 * The server-rendered pages of sign-in: plain HTML that works without JavaScript, with
 * labelled fields and no external assets.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const style = `
  body { font: 16px/1.5 system-ui, sans-serif; background: #f3f4f6; color: #1d2329; margin: 0; }
  main { max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
  input[type=email], input[type=password], input[type=text] { width: 100%; box-sizing: border-box; padding: .55rem; font-size: 1rem; border: 1px solid #9aa3ad; border-radius: 4px; }
  button { margin-top: 1.25rem; padding: .6rem 1.2rem; font-size: 1rem; border: 0; border-radius: 4px; background: #1450a3; color: #fff; cursor: pointer; }
  button.secondary { background: #e5e7eb; color: #1d2329; }
  .error { color: #a3141f; background: #fdecee; padding: .6rem; border-radius: 4px; }
  .code { font: 1.6rem ui-monospace, monospace; letter-spacing: .15em; }
  ul { padding-left: 1.2rem; }
`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Cairn</title>
<style>${style}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

// No `form-action`: browsers apply it to the redirects that follow a form post, and the
// sign-in and consent forms end in a redirect to the client's own address.
export const pageSecurityHeaders = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
} as const;

export function errorBlock(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '';
}

export function signInPage(action: string, options: { email?: string; error?: string; clientName?: string; upstream?: { name: string; href: string } }): string {
  const intro = options.clientName ? `<p>Sign in to continue to <strong>${escapeHtml(options.clientName)}</strong>.</p>` : '';
  const upstream = options.upstream ? `<p><a href="${escapeHtml(options.upstream.href)}">Sign in with ${escapeHtml(options.upstream.name)}</a></p>` : '';
  return page(
    'Sign in',
    `${intro}${errorBlock(options.error)}
<form method="post" action="${escapeHtml(action)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(options.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>${upstream}`,
  );
}

export function consentPage(action: string, options: { clientName: string; scopes: readonly string[]; email: string }): string {
  const describe: Record<string, string> = {
    read: 'read your data',
    write: 'change your data',
    openid: 'know who you are, with your e-mail address',
    offline_access: 'stay signed in (refresh tokens)',
  };
  const items = options.scopes.map((s) => `<li>${escapeHtml(describe[s] ?? s)}</li>`).join('');
  return page(
    'Allow access?',
    `<p><strong>${escapeHtml(options.clientName)}</strong> asks, for ${escapeHtml(options.email)}, to:</p>
<ul>${items}</ul>
<form method="post" action="${escapeHtml(action)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

export function deviceCodePage(action: string, xsrf: string, error?: string): string {
  return page(
    'Connect a device',
    `<p>Enter the code shown on your device.</p>${errorBlock(error)}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus>
<button type="submit">Continue</button>
</form>`,
  );
}

export function deviceConfirmPage(action: string, xsrf: string, userCode: string, clientName: string): string {
  const fields = `<input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}"><input type="hidden" name="user_code" value="${escapeHtml(userCode)}"><input type="hidden" name="confirm" value="yes">`;
  return page(
    'Connect a device',
    `<p><strong>${escapeHtml(clientName)}</strong> shows this code:</p>
<p class="code">${escapeHtml(userCode)}</p>
<p>Continue only if it matches the code on your device.</p>
<form method="post" action="${escapeHtml(action)}">${fields}<button type="submit">Continue</button></form>
<form method="post" action="${escapeHtml(action)}">${fields}<input type="hidden" name="abort" value="yes"><button type="submit" class="secondary">Cancel</button></form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, `<p>${escapeHtml(message)}</p>`);
}
