-- The validated answer (JSON) of a finished run whose agent has an output schema; NULL for a
-- text answer.
ALTER TABLE runs ADD COLUMN structured_output TEXT;
