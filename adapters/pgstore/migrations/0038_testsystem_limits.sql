-- testsystem: users' own daily limits of test SMS requests, which win over
-- the system's default. A username need not be a user yet.

CREATE TABLE testsystem_limits (
    username    text    COLLATE "C" PRIMARY KEY,
    daily_limit integer NOT NULL CHECK (daily_limit >= 0)
);
