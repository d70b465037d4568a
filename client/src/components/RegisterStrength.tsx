/**
 * Register meter: 0 to 5 points, labels Very Weak .. Strong (SPEC.md section 5). The scoring
 * functions come from '@parley/shared' through the lazily loaded module (see lib/lazyShared.ts).
 */
export function RegisterStrength({ password, score: scoreOf, label: labelOf }: { password: string; score: (p: string) => number; label: (s: number) => string }) {
  if (!password) return null;
  const score = scoreOf(password);
  return (
    <div className={`strength strength-${Math.max(1, score)}`} data-testid="password-strength">
      <div className="strength-bar" aria-hidden="true">
        {[1, 2, 3, 4, 5].map((i) => (
          <span key={i} className={`strength-seg${i <= score ? ' on' : ''}`} />
        ))}
      </div>
      <div className="strength-label" aria-live="polite">
        Password strength: <strong>{labelOf(score)}</strong>
      </div>
    </div>
  );
}
