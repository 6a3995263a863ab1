// Injected into the CommonJS bundle (see bundle-cli.mjs): `import.meta.url` of every bundled module
// becomes the bundle's own URL, as it was for the ES module bundle (`__filename` is the wrapper's).
import { pathToFileURL } from 'node:url';

export const __bridgeImportMetaUrl = pathToFileURL(__filename).href;
