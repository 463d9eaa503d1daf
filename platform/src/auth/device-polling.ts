import { createHash } from 'node:crypto';
import type Provider from 'oidc-provider';
import type pg from 'pg';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * RFC 8628 3.2 and 3.5, which oidc-provider leaves out: the device authorization answer
 * carries the polling `interval`, and a client polling faster than its interval is
 * answered `slow_down` and must then wait 5 seconds longer (kept per device code in
 * PostgreSQL, so every instance agrees).
 */
export function installDevicePolling(provider: Provider, pool: pg.Pool, intervalSeconds: number): void {
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if (route === 'device_authorization' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      ctx.body = { ...(ctx.body as Record<string, unknown>), interval: intervalSeconds };
      return;
    }
    if (route !== 'token' || ctx.oidc?.params?.['grant_type'] !== deviceGrant) return;
    const deviceCode = ctx.oidc.params['device_code'];
    if (typeof deviceCode !== 'string') return;
    const body = ctx.body as { error?: string } | undefined;
    const pending = ctx.status === 400 && body?.error === 'authorization_pending';
    // Only codes still waiting for the user are tracked: junk codes leave nothing behind.
    if (!pending) return;
    const digest = createHash('sha256').update(deviceCode).digest('hex');
    // One statement: the CTE reads the previous poll, the upsert records this one.
    const { rows } = await pool.query<{ too_fast: boolean }>(
      `with previous as (
         select last_polled_at > clock_timestamp() - make_interval(secs => interval_seconds) as too_fast
         from device_code_polls where device_code_digest = $1
       ), recorded as (
         insert into device_code_polls (device_code_digest, last_polled_at, interval_seconds, expires_at)
         values ($1, clock_timestamp(), $2, now() + interval '1 hour')
         on conflict (device_code_digest) do update set
           last_polled_at = clock_timestamp(),
           interval_seconds = case when device_code_polls.last_polled_at > clock_timestamp() - make_interval(secs => device_code_polls.interval_seconds)
                                   then device_code_polls.interval_seconds + 5 else device_code_polls.interval_seconds end
         returning 1
       )
       select coalesce((select too_fast from previous), false) as too_fast, (select count(*) from recorded) as recorded`,
      [digest, intervalSeconds],
    );
    if (rows[0]?.too_fast) {
      ctx.body = { error: 'slow_down', error_description: 'Polling too fast: wait the interval, plus 5 seconds.' };
    }
  });
}
