-- A store written by schema version 3 (charts and reports; no outbox yet).
-- Made with sqlite3 .dump of a file migrated to v3, with rows as that
-- version wrote them.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE conversations (
		id         TEXT PRIMARY KEY,
		name       TEXT NOT NULL,
		workspace  TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	, named INTEGER NOT NULL DEFAULT 1);
INSERT INTO conversations VALUES('chat_00000000000000e5','Revenue by region','/ws',1760000000000,1760000005000,1);
CREATE TABLE IF NOT EXISTS "messages" (
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
INSERT INTO messages VALUES('msg_0000000000000e01','chat_00000000000000e5',1,'user','','Revenue by region?','complete',NULL,'',0,'',0,0,0,0.0,'','','[]',1760000000000,1760000000000);
INSERT INTO messages VALUES('msg_0000000000000e02','chat_00000000000000e5',2,'assistant','msg_0000000000000e01','West leads with 400.','complete',NULL,'',0,'',0,0,0,0.0,'','','[]',1760000001000,1760000005000);
CREATE TABLE tool_calls (
		message_id  TEXT NOT NULL REFERENCES "messages" (id) ON DELETE CASCADE,
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
CREATE TABLE message_blobs (
		message_id TEXT PRIMARY KEY REFERENCES "messages" (id) ON DELETE CASCADE,
		trace      BLOB,
		outcome    BLOB
	);
CREATE TABLE charts (
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
INSERT INTO reports VALUES('report_00000000000e03','chat_00000000000000e5','msg_0000000000000e02','Revenue','# Revenue',X'7b7d',1760000006000);
CREATE TABLE report_exports (
		report_id   TEXT NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
		format      TEXT NOT NULL,
		path        TEXT NOT NULL,
		exported_at INTEGER NOT NULL
	);
CREATE INDEX conversations_by_updated ON conversations (updated_at DESC, id DESC);
CREATE INDEX messages_generating ON messages (status) WHERE status = 'generating';
CREATE INDEX reports_by_conversation ON reports (conversation_id, created_at);
CREATE INDEX report_exports_by_report ON report_exports (report_id, exported_at);
COMMIT;
PRAGMA user_version=3;
