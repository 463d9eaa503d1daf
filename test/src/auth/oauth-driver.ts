import { createHash, randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The path and query of an absolute or relative Location. */
export const pathOf = (location: string | undefined) => {
  if (!location) throw new Error('no Location header');
  const url = new URL(location, 'http://cairn.test');
  return `${url.pathname}${url.search}`;
};

const uidOf = (location: string) => /\/oauth\/interaction\/([^/?]+)/.exec(location)?.[1] ?? '';

/**
 * A browser without a browser: a cookie-keeping agent that walks the authorization code
 * flow through the sign-in and consent pages, as a person would.
 */
export class BrowserAgent {
  readonly agent: ReturnType<typeof request.agent>;
  constructor(app: Express) {
    this.agent = request.agent(app);
  }

  async authorize(params: Record<string, string>) {
    return this.agent.get('/oauth/authorize').query(params);
  }

  async signIn(interactionLocation: string, email: string, password: string) {
    const uid = uidOf(interactionLocation);
    return this.agent.post(`/oauth/interaction/${uid}/login`).type('form').send({ email, password });
  }

  async consent(interactionLocation: string, decision: 'approve' | 'deny') {
    const uid = uidOf(interactionLocation);
    return this.agent.post(`/oauth/interaction/${uid}/confirm`).type('form').send({ decision });
  }

  /** Follows redirects until one leaves the service (the client's redirect URI) or a page answers. */
  async follow(location: string, maxHops = 10): Promise<{ status: number; location: string | null; text: string }> {
    let next = location;
    for (let hop = 0; hop < maxHops; hop += 1) {
      const url = new URL(next, 'http://cairn.test');
      if (url.host !== 'cairn.test' && url.host !== '127.0.0.1') return { status: 302, location: next, text: '' };
      if (!url.pathname.startsWith('/oauth/')) return { status: 302, location: next, text: '' };
      const response = await this.agent.get(`${url.pathname}${url.search}`);
      if (response.status >= 300 && response.status < 400 && response.headers['location']) {
        next = String(response.headers['location']);
        if (next.includes('/oauth/interaction/')) return { status: response.status, location: next, text: '' };
        continue;
      }
      return { status: response.status, location: null, text: response.text };
    }
    throw new Error('too many redirects');
  }

  /** The whole flow up to the code: sign in, approve, and read the code off the redirect. */
  async codeFor(params: Record<string, string>, email: string, password: string): Promise<{ code: string; state: string | null }> {
    const started = await this.authorize(params);
    if (started.status !== 303 && started.status !== 302) throw new Error(`authorize answered ${started.status}: ${started.text}`);
    const login = String(started.headers['location']);
    const signedIn = await this.signIn(login, email, password);
    if (signedIn.status >= 400) throw new Error(`sign-in answered ${signedIn.status}`);
    let step = await this.follow(String(signedIn.headers['location']));
    if (step.location?.includes('/oauth/interaction/')) {
      const approved = await this.consent(step.location, 'approve');
      step = await this.follow(String(approved.headers['location']));
    }
    if (!step.location) throw new Error(`no redirect to the client: ${step.status} ${step.text.slice(0, 300)}`);
    const url = new URL(step.location);
    const code = url.searchParams.get('code');
    if (!code) throw new Error(`no code in ${step.location}`);
    return { code, state: url.searchParams.get('state') };
  }
}

export function basic(clientId: string, secret: string) {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}
