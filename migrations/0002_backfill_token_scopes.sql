-- Keys minted before scopes existed carry an empty scope set: give them the full set.
-- Keys that already have scopes are left exactly as they are.
UPDATE api_tokens SET scopes = 'bot,browser,tx' WHERE scopes IS NULL OR trim(scopes) = '';
