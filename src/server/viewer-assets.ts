/**
 * Serves the events viewer built by `npm run build:viewer`: `/` answers `index.html`,
 * revalidated on every visit, and `/assets/` the files it names, whose names carry a
 * hash of their content and are therefore kept by browsers for a year. The page holds
 * no conversation data (it fetches it from `/api` with the reader's key), so it is open
 * like `/docs`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express, { type Router } from 'express';
import { packageRoot } from '../package-info';
import { errorCode } from '../store/error-code';

/** Where `npm run build:viewer` writes, found from the package root: the same whether the server runs from src/ or from dist/src/. */
export function defaultViewerDirectory(): string {
  return path.join(packageRoot(), 'dist', 'viewer');
}

/**
 * Only this server's own files: a stored event that got markup into the page still
 * could not load a script or send data anywhere else.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const YEAR_SECONDS = 365 * 24 * 60 * 60;

export function viewerAssets(directory: string = defaultViewerDirectory()): Router {
  const router = express.Router();
  router.get('/', async (_req, res) => {
    let page: Buffer;
    try {
      page = await readFile(path.join(directory, 'index.html'));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      res
        .status(503)
        .type('text/plain')
        .set('Cache-Control', 'no-store')
        .send('The events viewer is not built. Run `npm run build:viewer` and reload this page.\n');
      return;
    }
    res.set({
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    res.type('html').send(page);
  });
  router.use(
    '/assets',
    express.static(path.join(directory, 'assets'), {
      index: false,
      redirect: false,
      etag: false,
      immutable: true,
      maxAge: YEAR_SECONDS * 1000,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  return router;
}
