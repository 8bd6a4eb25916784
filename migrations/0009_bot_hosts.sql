-- The latest report of each bot host (POST /internal/bot-hosts/reports), for dashboards and
-- autoscaling only: a report replaces its host's previous one.
CREATE TABLE bot_hosts (
	host_id TEXT PRIMARY KEY,
	report TEXT NOT NULL,
	reported_at TEXT NOT NULL
);
-- The metrics read only recent reports, and pruning drops old ones (pod names are never reused).
CREATE INDEX bot_hosts_reported ON bot_hosts(reported_at);

-- The fleet metrics count meetings by status, and scheduled plans by their start.
CREATE INDEX meetings_status ON meetings(status, scheduled_at);
