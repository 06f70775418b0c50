"""CloudFormation Hooks: hook projects, hook requests, the hook contract and its scenarios.

A hook's handlers (preCreate, preUpdate, preDelete) are called before CloudFormation provisions
a target; they answer SUCCESS (allowed), FAILED (refused, or could not evaluate) or IN_PROGRESS
(call again with this callbackContext). This package holds what is hook-specific: the hook schema
(:mod:`.schema`), events and the wire shapes of hook requests (:mod:`.events`, :mod:`.payload`),
target models made from AWS resource schemas (:mod:`.targets`), the hook contract as rules
(:mod:`.rules`), the replay engine for hook invocations (:mod:`.chain`) and the CLI's hook contract
tests as scenarios (:mod:`.scenarios`). Its steps and runs are the same records as a resource
type's, so the console, the journal, the exports and the dashboard show them.
"""
