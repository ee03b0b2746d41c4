package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations[i] takes the schema from version i to version i+1. They only
// ever move forward and are never edited once released: a change is a new
// migration, tested from a copy of the schema before it (testdata/vN.sql).
var migrations = []string{
	// v1: conversations and messages, the metadata of an answer as one JSON
	// document (tool calls, tokens, datasets, error, claimed).
	`CREATE TABLE conversations (
		id         TEXT PRIMARY KEY,
		name       TEXT NOT NULL,
		workspace  TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE INDEX conversations_by_updated ON conversations (updated_at DESC, id DESC);
	CREATE TABLE messages (
		id              TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
		seq             INTEGER NOT NULL,
		role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
		content         TEXT NOT NULL DEFAULT '',
		status          TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('generating', 'complete', 'failed')),
		metadata        TEXT NOT NULL DEFAULT '{}',
		created_at      INTEGER NOT NULL,
		UNIQUE (conversation_id, seq)
	);`,

	// v2: crash safety and structured metadata. Messages gain the statuses
	// interrupted and needs_input, the user message they answer, the run
	// that claimed them and the process holding them (owner, lease), and
	// their accounting as columns; tool calls become rows; the replayable
	// trace and outcome move to a table of their own so that listing
	// messages never reads them. A message left generating by v1 could not
	// be resumed: it becomes interrupted.
	`CREATE TABLE messages_v2 (
		id                TEXT PRIMARY KEY,
		conversation_id   TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
		seq               INTEGER NOT NULL,
		role              TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
		parent_id         TEXT NOT NULL DEFAULT '',
		content           TEXT NOT NULL DEFAULT '',
		status            TEXT NOT NULL CHECK (status IN ('generating', 'complete', 'failed', 'interrupted', 'needs_input')),
		run_id            TEXT UNIQUE,
		owner             TEXT NOT NULL DEFAULT '',
		lease_until       INTEGER NOT NULL DEFAULT 0,
		error             TEXT NOT NULL DEFAULT '',
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		steps             INTEGER NOT NULL DEFAULT 0,
		duration_ms       REAL NOT NULL DEFAULT 0,
		model             TEXT NOT NULL DEFAULT '',
		provider          TEXT NOT NULL DEFAULT '',
		datasets          TEXT NOT NULL DEFAULT '[]',
		created_at        INTEGER NOT NULL,
		updated_at        INTEGER NOT NULL,
		UNIQUE (conversation_id, seq)
	);
	INSERT INTO messages_v2 (id, conversation_id, seq, role, parent_id, content, status, error,
		prompt_tokens, completion_tokens, datasets, created_at, updated_at)
	SELECT m.id, m.conversation_id, m.seq, m.role,
		CASE WHEN m.role = 'assistant' THEN COALESCE((SELECT p.id FROM messages p
			WHERE p.conversation_id = m.conversation_id AND p.role = 'user' AND p.seq < m.seq
			ORDER BY p.seq DESC LIMIT 1), '') ELSE '' END,
		m.content,
		CASE m.status WHEN 'generating' THEN 'interrupted' ELSE m.status END,
		CASE WHEN m.status = 'generating' AND COALESCE(json_extract(m.metadata, '$.error.message'), '') = ''
			THEN 'Loupe stopped before this answer finished.'
			ELSE COALESCE(json_extract(m.metadata, '$.error.message'), '') END,
		COALESCE(json_extract(m.metadata, '$.tokensUsed.prompt'), 0),
		COALESCE(json_extract(m.metadata, '$.tokensUsed.completion'), 0),
		COALESCE(json_extract(m.metadata, '$.datasetsUsed'), '[]'),
		m.created_at, m.created_at
	FROM messages m;
	CREATE TABLE tool_calls (
		message_id  TEXT NOT NULL REFERENCES messages_v2 (id) ON DELETE CASCADE,
		seq         INTEGER NOT NULL,
		call_id     TEXT NOT NULL DEFAULT '',
		step        INTEGER NOT NULL DEFAULT 0,
		name        TEXT NOT NULL,
		arguments   TEXT NOT NULL DEFAULT '{}',
		result      TEXT NOT NULL DEFAULT '',
		ref         TEXT NOT NULL DEFAULT '',
		failed      INTEGER NOT NULL DEFAULT 0,
		skipped     INTEGER NOT NULL DEFAULT 0,
		duration_ms REAL NOT NULL DEFAULT 0,
		PRIMARY KEY (message_id, seq)
	);
	INSERT INTO tool_calls (message_id, seq, call_id, name, arguments, result)
	SELECT m.id, j.key + 1, 'call_' || (j.key + 1),
		COALESCE(json_extract(j.value, '$.name'), ''),
		substr(COALESCE(json_extract(j.value, '$.args'), '{}'), 1, 2000),
		substr(COALESCE(json_extract(j.value, '$.result'), ''), 1, 2000)
	FROM messages m, json_each(m.metadata, '$.toolCalls') j
	WHERE json_valid(m.metadata);
	CREATE TABLE message_blobs (
		message_id TEXT PRIMARY KEY REFERENCES messages_v2 (id) ON DELETE CASCADE,
		trace      BLOB,
		outcome    BLOB
	);
	DROP TABLE messages;
	ALTER TABLE messages_v2 RENAME TO messages;
	CREATE INDEX messages_generating ON messages (status) WHERE status = 'generating';
	ALTER TABLE conversations ADD COLUMN named INTEGER NOT NULL DEFAULT 1;`,

	// v3: charts with a snapshot of their data, and reports with their
	// export history.
	`CREATE TABLE charts (
		message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
		ref        TEXT NOT NULL,
		call_id    TEXT NOT NULL DEFAULT '',
		title      TEXT NOT NULL DEFAULT '',
		mark       TEXT NOT NULL DEFAULT '',
		spec       TEXT NOT NULL,
		sql        TEXT NOT NULL DEFAULT '',
		data       TEXT NOT NULL DEFAULT '[]',
		rows       INTEGER NOT NULL DEFAULT 0,
		created_at INTEGER NOT NULL,
		PRIMARY KEY (message_id, ref)
	);
	CREATE TABLE reports (
		id              TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
		message_id      TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
		title           TEXT NOT NULL,
		markdown        TEXT NOT NULL,
		source          BLOB,
		created_at      INTEGER NOT NULL
	);
	CREATE INDEX reports_by_conversation ON reports (conversation_id, created_at);
	CREATE TABLE report_exports (
		report_id   TEXT NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
		format      TEXT NOT NULL,
		path        TEXT NOT NULL,
		exported_at INTEGER NOT NULL
	);
	CREATE INDEX report_exports_by_report ON report_exports (report_id, exported_at);`,

	// v4: the outbox. Every request sent to a model server on another
	// machine, byte for byte, with its answer (or, for status checks and
	// table-name embeddings, with no conversation); and, per answer, the
	// privacy level in force and the model server it went to.
	`CREATE TABLE outbox (
		id              INTEGER PRIMARY KEY AUTOINCREMENT,
		conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE,
		message_id      TEXT REFERENCES messages (id) ON DELETE CASCADE,
		sent_at         INTEGER NOT NULL,
		method          TEXT NOT NULL DEFAULT 'POST',
		url             TEXT NOT NULL,
		level           TEXT NOT NULL DEFAULT '',
		size            INTEGER NOT NULL,
		body            BLOB
	);
	CREATE INDEX outbox_by_conversation ON outbox (conversation_id, id);
	CREATE INDEX outbox_by_message ON outbox (message_id, id);
	CREATE TABLE outbox_answers (
		message_id TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
		level      TEXT NOT NULL,
		model_url  TEXT NOT NULL DEFAULT '',
		local      INTEGER NOT NULL DEFAULT 0
	);`,

	// v5: the user's verdict on an answer (thumbs up or down) and why.
	`CREATE TABLE feedback (
		message_id      TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
		conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
		verdict         TEXT NOT NULL CHECK (verdict IN ('up', 'down')),
		note            TEXT NOT NULL DEFAULT '',
		given_at        INTEGER NOT NULL
	);
	CREATE INDEX feedback_by_conversation ON feedback (conversation_id);`,

	// v6: charts the user changed by hand (type, fields, or the Vega-Lite
	// spec), kept beside the chart the model drew, which stays as it was.
	`CREATE TABLE chart_edits (
		message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
		call_id    TEXT NOT NULL,
		title      TEXT NOT NULL DEFAULT '',
		mark       TEXT NOT NULL DEFAULT '',
		spec       TEXT NOT NULL,
		edited_at  INTEGER NOT NULL,
		PRIMARY KEY (message_id, call_id)
	);`,
}

// Version is the schema version this Loupe writes.
var Version = len(migrations)

// migrate brings the schema to Version, one transaction per step. The
// version is read again under the write lock, so two processes opening
// an old file at once migrate it once.
func (s *Store) migrate(ctx context.Context) error {
	return migrateTo(ctx, s.db, Version)
}

// migrateTo runs the migrations up to version target.
func migrateTo(ctx context.Context, db *sql.DB, target int) error {
	for {
		done, err := migrateStep(ctx, db, target)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep runs the next migration below target, reporting done when
// there is none.
func migrateStep(ctx context.Context, db *sql.DB, target int) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store: begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, fmt.Errorf("store: read the schema version: %w", err)
	}
	if v > len(migrations) {
		return false, fmt.Errorf("%w (schema version %d, this Loupe knows up to %d)", ErrNewerSchema, v, len(migrations))
	}
	if v >= target {
		return true, tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
		return false, fmt.Errorf("store: migrate the schema from version %d to %d: %w", v, v+1, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, fmt.Errorf("store: record schema version %d: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: commit the migration to version %d: %w", v+1, err)
	}
	return false, nil
}

// SchemaVersion reports the file's schema version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}
