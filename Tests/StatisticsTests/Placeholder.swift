// Placeholder so the test target builds until its tests land.
