// The bare repositories' pre-receive hook: GitHub's refusals that leave every ref as it
// was. It runs inside git http-backend, so it reads what it needs from the CGI environment:
// DOUBLE_WORKFLOWS ("write" when the token may change workflows), DOUBLE_ACTOR_KIND (how
// GitHub names the token in its message) and DOUBLE_REFUSALS (a file where it writes
// "<ref> <reason>" lines, which the double puts into the push's report as GitHub does).
//
// GitHub refuses a GitHub App token without the `workflows` permission any push whose new
// commits create, change or delete a file under .github/workflows/ ("refusing to allow a
// GitHub App to create or update workflow `<path>` without `workflows` permission"), and
// refuses deleting the default branch ("refusing to delete the current branch: <ref>").
// A new commit is one no existing ref reaches; each is compared with its first parent.
export const PRE_RECEIVE_HOOK = `#!/bin/sh
zero=0000000000000000000000000000000000000000
head=$(git symbolic-ref -q HEAD)
refused=
while read -r old new ref; do
  reason=
  if [ "$new" = "$zero" ]; then
    if [ "$ref" = "$head" ]; then reason="refusing to delete the current branch: $ref"; fi
  elif [ "$DOUBLE_WORKFLOWS" != write ]; then
    file=$(git rev-list "$new" --not --all |
      git diff-tree --stdin -r --root --name-only --no-commit-id --diff-merges=first-parent \\
        -- .github/workflows | head -n 1)
    if [ -n "$file" ]; then
      reason="refusing to allow $DOUBLE_ACTOR_KIND to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission"
    fi
  fi
  if [ -n "$reason" ]; then
    printf '%s %s\\n' "$ref" "$reason" >> "$DOUBLE_REFUSALS"
    refused=1
  fi
done
[ -z "$refused" ]
`;
