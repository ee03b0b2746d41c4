import { useState } from 'react';
import type { RoleWarning } from '../../api';
import { Icon } from '../common/Icon';

/**
 * RoleWarningNote shows, as the backend found it, that a connection's role
 * can do more than read: what it may do, and the SQL of a read-only role to
 * connect with instead, ready to copy.
 */
export function RoleWarningNote({ warning }: { warning: RoleWarning }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="conn-role" role="alert" data-testid="role-warning">
      <div className="conn-role__title">
        <Icon name="warning" /> {warning.message}
      </div>
      <p className="conn-role__message">{warning.advice}</p>
      <ul className="conn-role__risks">
        {warning.risks.map((r) => (
          <li key={r}>
            {warning.role} {r}
          </li>
        ))}
      </ul>
      {warning.sql && (
        <>
          <p className="conn-role__message">As an administrator, create a read-only role and connect with it:</p>
          <pre className="conn-advice__sql" data-testid="role-warning-sql">
            {warning.sql}
          </pre>
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              void navigator.clipboard?.writeText(warning.sql).then(() => setCopied(true));
            }}
          >
            <Icon name={copied ? 'check' : 'copy'} size={14} /> {copied ? 'Copied' : 'Copy SQL'}
          </button>
        </>
      )}
    </div>
  );
}
