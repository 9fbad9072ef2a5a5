import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { enableJSDOM } from '@theia/core/lib/browser/test/jsdom';
import { Container, ContainerModule } from '@theia/core/shared/inversify';
import type { SetupCardProps } from '@qodeassist/theia/lib/browser/chat/setup-card';
import type { SetupCardRenderer } from '@qodeassist/theia/lib/browser/chat/setup-card-renderer';
import type * as ReactDomServer from 'react-dom/server';

type ProductModule = typeof import('./product-frontend-module');

/** What QodeAssist's and the product's browser modules export; required once a DOM is there (lumino reads `navigator` as it loads). */
interface Loaded {
    bindChatViewDefaults: typeof import('@qodeassist/theia/lib/browser/chat/chat-view-defaults').bindChatViewDefaults;
    SetupCardRenderer: typeof SetupCardRenderer;
    product: ProductModule;
    renderToStaticMarkup: typeof ReactDomServer.renderToStaticMarkup;
}

const GUIDE = 'https://docs.example.com/example-product/ai-setup';

/** The chat's Quick Setup when nothing answers: one local preset, so the card has something to offer. */
const PROPS: SetupCardProps = {
    state: {
        needed: true, reason: 'No provider answered.',
        presets: [{ id: 'ollama', label: 'Ollama', provider: 'ollama', url: 'http://localhost:11434', local: true, keyFound: false, agents: {} }]
    },
    apply: async () => ({ status: 'reachable', message: 'ok' }) as Awaited<ReturnType<SetupCardProps['apply']>>,
    done: () => undefined
};

describe('The example product: its own Quick Setup card in QodeAssist\'s chat', function () {
    this.timeout(30_000);
    let disableJSDOM: () => void;
    let loaded: Loaded;
    const cssLoader = require.extensions['.css'];
    const globals = globalThis as { DragEvent?: unknown };
    let addedDragEvent = false;

    before(async () => {
        disableJSDOM = enableJSDOM();
        // Theia's modules import their stylesheets, which only the app's bundler reads; Theia's own specs skip them the same way (ignore-styles).
        require.extensions['.css'] = () => undefined;
        // lumino's drag and drop extends DragEvent as it loads; jsdom has no DragEvent.
        addedDragEvent = globals.DragEvent === undefined;
        globals.DragEvent ??= class DragEvent extends window.MouseEvent { };
        const { FrontendApplicationConfigProvider } = await import('@theia/core/lib/browser/frontend-application-config-provider');
        // As the product's app package.json would set it.
        FrontendApplicationConfigProvider.set({ applicationName: 'Example Product', productSetupGuide: GUIDE });
        const [defaults, renderer, product, server] = await Promise.all([
            import('@qodeassist/theia/lib/browser/chat/chat-view-defaults'),
            import('@qodeassist/theia/lib/browser/chat/setup-card-renderer'),
            import('./product-frontend-module'),
            import('react-dom/server')
        ]);
        loaded = { bindChatViewDefaults: defaults.bindChatViewDefaults, SetupCardRenderer: renderer.SetupCardRenderer, product, renderToStaticMarkup: server.renderToStaticMarkup };
    });
    after(() => {
        disableJSDOM();
        if (addedDragEvent) {
            delete globals.DragEvent;
        }
        if (cssLoader) {
            require.extensions['.css'] = cssLoader;
        } else {
            delete require.extensions['.css'];
        }
    });

    /** The frontend container as Theia loads it: QodeAssist's bindings first, then the product's module when it is installed. */
    const setupCard = (withProduct: boolean): SetupCardRenderer => {
        const container = new Container();
        container.load(new ContainerModule(bind => loaded.bindChatViewDefaults(bind)), ...(withProduct ? [loaded.product.default] : []));
        return container.get<SetupCardRenderer>(loaded.SetupCardRenderer);
    };
    const html = (card: SetupCardRenderer): string => loaded.renderToStaticMarkup(card.render(PROPS) as React.ReactElement);

    it('the chat gets the product\'s card: its name and a link to its own setup guide', () => {
        const card = setupCard(true);
        assert.ok(card instanceof loaded.product.ProductSetupCardRenderer, `got ${card.constructor.name}`);
        const markup = html(card);
        assert.match(markup, /Set up Example Product<\/div>/);
        assert.ok(markup.includes(`href="${GUIDE}"`), markup);
        assert.match(markup, /target="_blank" rel="noopener noreferrer"/);
        assert.ok(!markup.includes('Set up QodeAssist'), 'QodeAssist\'s heading is replaced, not shown beside the product\'s');
        assert.match(markup, /data-preset="ollama"/, 'the presets are QodeAssist\'s, as before');
    });

    it('without the product, the chat shows QodeAssist\'s own card and no guide link', () => {
        const card = setupCard(false);
        assert.ok(!(card instanceof loaded.product.ProductSetupCardRenderer));
        const markup = html(card);
        assert.match(markup, /Set up QodeAssist<\/div>/);
        assert.ok(!markup.includes('data-link="setup-help"'), markup);
    });

    it('links only an https guide: a javascript:, file: or malformed address in the config gives no link', () => {
        for (const productSetupGuide of ['javascript:alert(document.cookie)', 'file:///etc/passwd', 'http://docs.example.com/setup', 'not a url', 42]) {
            const branding = loaded.product.productBranding({ applicationName: 'Example Product', productSetupGuide });
            assert.deepEqual(branding, { title: 'Set up Example Product', help: undefined }, String(productSetupGuide));
        }
    });
});
