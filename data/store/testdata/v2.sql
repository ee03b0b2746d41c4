-- A store written by schema version 2 (structured metadata, crash safety;
-- no charts or reports yet). Made with sqlite3 .dump of a file migrated to
-- v2, with rows as that version wrote them.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE conversations (
		id         TEXT PRIMARY KEY,
		name       TEXT NOT NULL,
		workspace  TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	, named INTEGER NOT NULL DEFAULT 1);
CREATE INDEX conversations_by_updated ON conversations (updated_at DESC, id DESC);
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
CREATE INDEX messages_generating ON messages (status) WHERE status = 'generating';
INSERT INTO conversations VALUES('chat_00000000000000c3','Top customers','/home/ana/loupe/workspace',1767225600000,1767226000000,1);
INSERT INTO conversations VALUES('chat_00000000000000d4','New chat','/home/ana/loupe/workspace',1767312000000,1767312000000,0);
INSERT INTO messages VALUES('msg_0000000000000c01','chat_00000000000000c3',1,'user','','Who are the top customers?','complete',NULL,'',0,'',0,0,0,0,'','','[]',1767225600000,1767225600000);
INSERT INTO messages VALUES('msg_0000000000000c02','chat_00000000000000c3',2,'assistant','msg_0000000000000c01','Which measure: revenue or order count?','needs_input','run_00000000000000c2','',0,'',900,40,1,812.5,'qwen3:8b','ollama','[]',1767225610000,1767225620000);
INSERT INTO messages VALUES('msg_0000000000000c03','chat_00000000000000c3',3,'user','','revenue','complete',NULL,'',0,'',0,0,0,0,'','','[]',1767225700000,1767225700000);
INSERT INTO messages VALUES('msg_0000000000000c04','chat_00000000000000c3',4,'assistant','msg_0000000000000c03','Acme leads with 12,000 in revenue.','complete','run_00000000000000c4','',0,'',2100,150,2,2400.0,'qwen3:8b','ollama','["customers","orders"]',1767225710000,1767225800000);
INSERT INTO messages VALUES('msg_0000000000000c05','chat_00000000000000c3',5,'user','','now by region','complete',NULL,'',0,'',0,0,0,0,'','','[]',1767225900000,1767225900000);
INSERT INTO messages VALUES('msg_0000000000000c06','chat_00000000000000c3',6,'assistant','msg_0000000000000c05','Grouping by','generating','run_00000000000000c6','999999999/0badc0ffee00',1767225960000,'',0,0,0,0,'','','[]',1767225910000,1767225930000);
INSERT INTO tool_calls VALUES('msg_0000000000000c02',1,'call_1',1,'ask_user','{"question":"Which measure: revenue or order count?","options":["revenue","order count"]}','Asked the user.','',0,0,0.4);
INSERT INTO tool_calls VALUES('msg_0000000000000c04',1,'call_1',1,'run_sql','{"sql":"SELECT c.name, sum(o.amount) AS revenue FROM orders o JOIN customers c USING (customer_id) GROUP BY 1 ORDER BY 2 DESC LIMIT 5"}','[q1] 5 rows: Acme 12000, Globex 9000','q1',0,0,31.2);
INSERT INTO tool_calls VALUES('msg_0000000000000c06',1,'call_1',1,'run_sql','{"sql":"SELECT region, sum(amount) FROM orders GROUP BY region"}','[q1] 4 rows','q1',0,0,12.0);
INSERT INTO message_blobs VALUES('msg_0000000000000c04',X'5b5d',X'7b22737461747573223a22646f6e65227d');
COMMIT;
PRAGMA user_version=2;
