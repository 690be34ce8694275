"""Pure (no Django) helpers the whole judging app shares: the policy for identifiers, JSON read strictly."""
