"""What the suggesters share: the source tree and its scopes (syntax, context, purity), the patch and its diff
(context, diff, current), call sites and arguments, and the pieces of patches more than one suggester builds
(where_chain, cond_patch, if_branches, logger_switch, ...). No rule names a module here; the suggesters one level
up are the modules rules name (``Rule.suggester``)."""
