import { settingsPasswordStrength } from '@parley/shared';

/** Settings indicator: steps of 25 (Weak, Fair, Good, Strong). */
export function SettingsStrength({ password }: { password: string }) {
  if (!password) return null;
  const { score, label } = settingsPasswordStrength(password);
  const level = score <= 25 ? 1 : score <= 50 ? 2 : score <= 75 ? 4 : 5;
  return (
    <div className={`strength strength-${level}`} data-testid="password-strength">
      <div className="strength-bar" aria-hidden="true">
        {[25, 50, 75, 100].map((s) => (
          <span key={s} className={`strength-seg${s <= score ? ' on' : ''}`} />
        ))}
      </div>
      <div className="strength-label" aria-live="polite">
        Password strength: <strong>{label}</strong> ({score}%)
      </div>
    </div>
  );
}
