// How connections and their tables are named on screen and in SQL.
import type { Connection } from '../../api';
import { basename } from '../../format';

/** The engine's name as analysts know it. */
export function kindName(kind: string): string {
  return ({ postgres: 'PostgreSQL', mysql: 'MySQL / MariaDB', sqlite: 'SQLite' } as Record<string, string>)[kind] ?? kind;
}

/** Where a connection points, in a few words. */
export function whereOf(c: Connection): string {
  if (c.kind === 'sqlite') return basename(c.path ?? c.url);
  return `${c.host ?? ''}${c.port ? `:${c.port}` : ''}/${c.database ?? ''}`;
}

/**
 * sqlName is a table name as the dialect's SQL writes it: bare when it can
 * be, else each part quoted (PostgreSQL folds bare names to lower case).
 */
export function sqlName(name: string, dialect: string): string {
  const mysql = /mysql|mariadb/i.test(dialect);
  const bare = /postgres/i.test(dialect) ? /^[a-z_][a-z0-9_$]*$/ : /^[A-Za-z_][A-Za-z0-9_$]*$/;
  return name
    .split('.')
    .map((part) => (bare.test(part) ? part : mysql ? `\`${part.replace(/`/g, '``')}\`` : `"${part.replace(/"/g, '""')}"`))
    .join('.');
}
