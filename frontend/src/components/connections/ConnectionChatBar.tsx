import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import { kindName, whereOf } from './names';
import './connections.css';

/**
 * Says, above a conversation about a database connection, which database
 * its questions run on. Nothing for a conversation about the workspace.
 */
export function ConnectionChatBar() {
  const name = useStore((s) => s.chats.find((c) => c.id === s.chatId)?.connection);
  const conn = useStore((s) => (name ? s.connections?.find((c) => c.name === name) : undefined));
  const gone = useStore((s) => name !== undefined && s.connections !== null && !s.connections.some((c) => c.name === name));
  if (!name) return null;
  return (
    <div className="conn-bar" data-testid="connection-chat-bar" role="note">
      <Icon name="database" size={15} className="conn-bar__icon" />
      <span>
        Asking <strong>{name}</strong>
        {conn && (
          <span className="conn-bar__where">
            {' '}
            · {kindName(conn.kind)} · {whereOf(conn)}
          </span>
        )}
      </span>
      <span className="conn-bar__note">
        {gone ? 'This connection was removed: add it again to ask here.' : 'Queries run on the database, read-only'}
      </span>
    </div>
  );
}
