import type { ButtonHTMLAttributes, ReactNode } from 'react';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'link';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: 'sm' | 'md' | 'lg';
  /** Shows a spinner, disables the button and sets aria-busy. */
  busy?: boolean;
  block?: boolean;
  children?: ReactNode;
}

export function Button({ variant = 'primary', size = 'md', busy = false, block = false, className, disabled, children, type, ...rest }: ButtonProps) {
  const cls = ['btn', `btn-${variant}`, `btn-${size}`, block ? 'btn-block' : '', className ?? ''].filter(Boolean).join(' ');
  return (
    <button type={type ?? 'button'} className={cls} disabled={disabled || busy} aria-busy={busy || undefined} {...rest}>
      {busy && <span className="spinner spinner-sm" aria-hidden="true" />}
      {children}
    </button>
  );
}

export function Spinner({ size = 'md', label }: { size?: 'sm' | 'md' | 'lg'; label?: string }) {
  if (label) return <span className={`spinner spinner-${size}`} role="status" aria-label={label} />;
  return <span className={`spinner spinner-${size}`} aria-hidden="true" />;
}
