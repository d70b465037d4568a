import { Link } from '@tanstack/react-router';

/** The plan's gate, shown before the user hits it (and when the server answers with it). */
export function PlanGate({ message, canUpgrade }: { message: string; canUpgrade: boolean }) {
  return (
    <div className="cb-gate" role="status">
      <p>
        <b>{message}</b>
      </p>
      {canUpgrade ? (
        <p>
          Your chat history stays readable. <Link to="/subscription">See plans and upgrade</Link>
        </p>
      ) : (
        <p>Your chat history stays readable. Ask the account owner to upgrade the plan.</p>
      )}
    </div>
  );
}
