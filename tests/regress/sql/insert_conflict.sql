-- INSERT ... ON CONFLICT: arbiter inference (columns in any order, a
-- partial index's WHERE, ON CONSTRAINT), DO NOTHING, DO UPDATE with
-- EXCLUDED, WHERE and RETURNING, and the errors PostgreSQL raises.
CREATE TABLE users (id int PRIMARY KEY, email text NOT NULL, visits int DEFAULT 0, note text);
CREATE UNIQUE INDEX users_email ON users (email);
INSERT INTO users VALUES (1, 'a@example.com', 1, 'first');

-- A conflict on the key: nothing happens, and nothing is returned.
INSERT INTO users VALUES (1, 'other@example.com') ON CONFLICT (id) DO NOTHING;
INSERT INTO users VALUES (1, 'other@example.com') ON CONFLICT (id) DO NOTHING RETURNING *;
INSERT INTO users VALUES (2, 'b@example.com') ON CONFLICT DO NOTHING RETURNING id;
-- Without a target every unique index is an arbiter.
INSERT INTO users VALUES (3, 'a@example.com') ON CONFLICT DO NOTHING;
INSERT INTO users VALUES (3, 'a@example.com') ON CONFLICT (id) DO NOTHING;

-- Upserts: the existing row is updated from the proposed one (EXCLUDED).
INSERT INTO users AS u VALUES (1, 'a@example.com', 5)
  ON CONFLICT (email) DO UPDATE SET visits = u.visits + excluded.visits
  RETURNING id, email, visits, note;
INSERT INTO users VALUES (4, 'b@example.com', 7, 'new')
  ON CONFLICT (email) DO UPDATE SET visits = users.visits + 1, note = excluded.note
  RETURNING *;
-- DO UPDATE ... WHERE: a false condition leaves the row as it is.
INSERT INTO users VALUES (1, 'a@example.com')
  ON CONFLICT (id) DO UPDATE SET note = 'changed' WHERE users.visits > 100
  RETURNING *;
INSERT INTO users VALUES (1, 'a@example.com', 0, 'x')
  ON CONFLICT (id) DO UPDATE SET note = excluded.note WHERE excluded.note = 'x'
  RETURNING *;
-- SET may change the key itself, and DEFAULT works.
INSERT INTO users VALUES (2, 'b@example.com') ON CONFLICT (id) DO UPDATE SET id = 20, visits = DEFAULT RETURNING *;
-- Several rows, some conflicting, some not.
INSERT INTO users VALUES (1, 'a@example.com'), (5, 'e@example.com'), (20, 'b@example.com')
  ON CONFLICT (id) DO UPDATE SET visits = users.visits + 10;
SELECT * FROM users ORDER BY id;

-- ON CONSTRAINT names the constraint's index.
INSERT INTO users VALUES (5, 'zz@example.com') ON CONFLICT ON CONSTRAINT users_pkey DO UPDATE SET note = 'by constraint' RETURNING id, note;
INSERT INTO users VALUES (5, 'zz@example.com') ON CONFLICT ON CONSTRAINT nosuch DO NOTHING;

-- Multi-column and partial unique indexes.
CREATE TABLE slots (day int, room text, booked_by text, active bool);
CREATE UNIQUE INDEX slots_day_room ON slots (day, room);
INSERT INTO slots VALUES (1, 'a', 'ann', true);
INSERT INTO slots VALUES (1, 'a', 'bob', true) ON CONFLICT (room, day) DO UPDATE SET booked_by = excluded.booked_by;
INSERT INTO slots VALUES (1, 'a', 'cy', true) ON CONFLICT (day) DO NOTHING;
CREATE TABLE tokens (id int, token text, active bool);
CREATE UNIQUE INDEX tokens_active ON tokens (token) WHERE active;
INSERT INTO tokens VALUES (1, 't1', true), (2, 't1', false);
INSERT INTO tokens VALUES (3, 't1', true) ON CONFLICT (token) WHERE active DO UPDATE SET id = excluded.id;
INSERT INTO tokens VALUES (4, 't1', true) ON CONFLICT (token) DO NOTHING;
SELECT * FROM slots ORDER BY day, room;
SELECT * FROM tokens ORDER BY id;

-- Errors.
INSERT INTO users VALUES (1, 'a@example.com') ON CONFLICT DO UPDATE SET visits = 0;
INSERT INTO users VALUES (1, 'a@example.com') ON CONFLICT (note) DO NOTHING;
INSERT INTO users VALUES (1, 'a@example.com') ON CONFLICT (id) DO UPDATE SET visits = visits + 1;
INSERT INTO users VALUES (7, 'g@example.com'), (7, 'h@example.com') ON CONFLICT (id) DO UPDATE SET note = 'twice';
INSERT INTO users VALUES (7, 'g@example.com'), (7, 'h@example.com') ON CONFLICT (id) DO NOTHING;
-- A conflict on an index that is not an arbiter is still a violation.
INSERT INTO users VALUES (8, 'a@example.com') ON CONFLICT (id) DO NOTHING;
INSERT INTO users VALUES (1, 'a@example.com') ON CONFLICT (id) DO UPDATE SET email = 'b@example.com';
INSERT INTO users VALUES (1, 'a@example.com') ON CONFLICT (id) DO UPDATE SET email = NULL;
SELECT * FROM users ORDER BY id;
