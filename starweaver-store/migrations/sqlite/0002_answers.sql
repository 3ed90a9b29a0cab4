-- Answers given so far for the calls a waiting run waits for (JSON), until a worker takes them.
ALTER TABLE runs ADD COLUMN answers TEXT;
