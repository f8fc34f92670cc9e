-- Suppressions in the one spelling of their subject (lib/records/canonical-subject.ts): ids of
-- digits without leading zeros, a URN's type in lower case (with its id of digits unpadded). Two
-- rows naming one subject keep the older.

DELETE FROM suppressions s USING (
  SELECT kind, subject, row_number() OVER (PARTITION BY kind, CASE
  WHEN kind IN ('event', 'pin_user') AND subject ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(subject, '0'), ''), '0')
  WHEN kind = 'profile' AND subject ~* '^urn:li:[a-z_]+:[a-z0-9_-]+$' THEN
    'urn:li:' || lower(split_part(subject, ':', 3)) || ':' || CASE
      WHEN split_part(subject, ':', 4) ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(split_part(subject, ':', 4), '0'), ''), '0')
      ELSE split_part(subject, ':', 4) END
  ELSE subject END ORDER BY created_at, subject) AS rank
  FROM suppressions
) r WHERE s.kind = r.kind AND s.subject = r.subject AND r.rank > 1;
UPDATE suppressions SET subject = CASE
  WHEN kind IN ('event', 'pin_user') AND subject ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(subject, '0'), ''), '0')
  WHEN kind = 'profile' AND subject ~* '^urn:li:[a-z_]+:[a-z0-9_-]+$' THEN
    'urn:li:' || lower(split_part(subject, ':', 3)) || ':' || CASE
      WHEN split_part(subject, ':', 4) ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(split_part(subject, ':', 4), '0'), ''), '0')
      ELSE split_part(subject, ':', 4) END
  ELSE subject END WHERE subject <> CASE
  WHEN kind IN ('event', 'pin_user') AND subject ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(subject, '0'), ''), '0')
  WHEN kind = 'profile' AND subject ~* '^urn:li:[a-z_]+:[a-z0-9_-]+$' THEN
    'urn:li:' || lower(split_part(subject, ':', 3)) || ':' || CASE
      WHEN split_part(subject, ':', 4) ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(split_part(subject, ':', 4), '0'), ''), '0')
      ELSE split_part(subject, ':', 4) END
  ELSE subject END;
