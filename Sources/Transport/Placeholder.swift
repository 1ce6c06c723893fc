// Placeholder so the target builds until its code lands; delete when adding the first real file.
