-- External repositories a user attached with `POST /agent/api/workspace/swap`, each cloned into
-- its own Workspace object (`repo:<user_id>:<key>`). At most one is active; with none active the
-- user's home workspace is. The repository address is stored without credentials: the token
-- of a private repository is used for the clone and never kept.
CREATE TABLE agent_workspaces (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	-- The Workspace object's name (src/workspace/workspace-names.ts, attachedWorkspace).
	workspace TEXT NOT NULL,
	repo TEXT NOT NULL,
	ref TEXT NOT NULL,
	active INTEGER NOT NULL DEFAULT 0,
	attached_at TEXT NOT NULL,
	PRIMARY KEY (user_id, workspace)
);
CREATE UNIQUE INDEX agent_workspaces_one_active ON agent_workspaces(user_id) WHERE active = 1;
