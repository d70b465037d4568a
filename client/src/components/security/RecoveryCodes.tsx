/** Ten recovery codes, shown once: the user keeps them somewhere safe. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="recovery-codes">
      <p className="field-hint">Each code signs you in once if you lose your authenticator. They are shown only now: copy or print them and keep them somewhere safe.</p>
      <ul aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
