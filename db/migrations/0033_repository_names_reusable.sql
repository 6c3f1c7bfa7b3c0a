-- A repository's name is its own only until it is renamed or transferred: a row keeps an old name
-- until a delivery names the repository again, and a new repository may have it by then.
DROP INDEX "repositories_full_name_idx";
