import type { WebhookEvent, WebhookFilters } from './events.ts';

export type WebhookState =
  | { readonly status: 'absent' }
  | { readonly status: 'active' | 'paused'; readonly ownerId: string; readonly url: string; readonly filters: WebhookFilters; readonly sealedSecret: string }
  | { readonly status: 'deleted' };

export const initialState: WebhookState = { status: 'absent' };

export function evolve(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case 'WebhookCreated': {
      const { ownerId, url, filters, sealedSecret } = event.data;
      return { status: 'active', ownerId, url, filters, sealedSecret };
    }
    case 'WebhookChanged':
      return state.status === 'active' || state.status === 'paused' ? { ...state, ...event.data.changes } : state;
    case 'WebhookPaused':
      return state.status === 'active' ? { ...state, status: 'paused' } : state;
    case 'WebhookResumed':
      return state.status === 'paused' ? { ...state, status: 'active' } : state;
    case 'WebhookDeleted':
      return { status: 'deleted' };
    case 'WebhookReplayRequested':
      return state;
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}
