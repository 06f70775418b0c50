"""`cfn-debug run`: events run as chains without the dashboard, for terminals and CI."""
